import { MAX_FILES } from "../http/multipart.ts";
import { MAX_JSON_DEPTH } from "../lib/json-scan.ts";
import { MAX_FIELD_NAME } from "../services/submissions/fields.ts";
import { MAX_FIELDS } from "../services/submissions/intake.ts";

/** What a submission body may hold, with the limits the endpoint enforces. */
export const SUBMISSION_BODY = [
  "The form's fields; a key sent several times (checkbox groups) becomes an array, JSON values are kept as sent.",
  `At most ${MAX_FIELDS} fields (after the special fields are removed), names of at most ${MAX_FIELD_NAME} characters, JSON nested at most ${MAX_JSON_DEPTH} levels,`,
  `numbers that a double holds exactly, ${MAX_FILES} files (multipart, on a form with fileUploads), the whole body within --max-body.`,
].join(" ");
