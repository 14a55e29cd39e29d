import { describe, expect, test } from "bun:test";
import { fieldsErrors, fieldsFromPost, fieldsPatch } from "../../src/dashboard/pages/fields-section.tsx";
import { ApiError } from "../../src/errors.ts";
import { parseBody } from "../../src/lib/validate.ts";
import { updateSchema } from "../../src/services/forms.ts";

// The dashboard's fields editor turns its rows into the PATCH body of the forms service, and the service's
// refusal back into the input of the page at fault, even when rows before it were removed or left blank.

/** The refusal the forms service gives this body, as the page's errors. */
async function refusal(body: URLSearchParams): Promise<Record<string, string>> {
  const { patch, rowOf } = fieldsPatch(fieldsFromPost(body));
  try {
    parseBody(await updateSchema(), patch);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return fieldsErrors(error, rowOf);
  }
  throw new Error("the service took it");
}

describe("the fields editor", () => {
  test("rows become the service's fields: typed numbers, options a line each, removed and blank rows left out", () => {
    const body = new URLSearchParams([
      ["fields.0.name", "email"],
      ["fields.0.type", "email"],
      ["fields.0.required", "true"],
      ["fields.1.name", "old"],
      ["fields.1.type", "text"],
      ["fields.1.remove", "true"],
      ["fields.2.name", " age "],
      ["fields.2.type", "number"],
      ["fields.2.min", "18"],
      ["fields.2.max", " 130 "],
      ["fields.3.name", "plan"],
      ["fields.3.type", "select"],
      ["fields.3.options", "Free\r\n\r\n Pro \n"],
      ["fields.4.name", ""],
      ["fields.4.type", "text"],
      ["otherFields", "drop"],
    ]);
    expect(fieldsPatch(fieldsFromPost(body))).toEqual({
      patch: {
        fields: [
          { name: "email", type: "email", required: true },
          { name: "age", type: "number", min: 18, max: 130 },
          { name: "plan", type: "select", options: ["Free", "Pro"] },
        ],
        otherFields: "drop",
      },
      rowOf: [0, 2, 3],
    });
  });

  test("the service's words land on the row of the page they are about, after a removed row", async () => {
    const rows = (extra: [string, string][]) =>
      new URLSearchParams([["fields.0.name", "gone"], ["fields.0.type", "text"], ["fields.0.remove", "true"], ...extra, ["fields.1.type", "text"]]);
    expect(
      await refusal(
        rows([
          ["fields.1.name", "n"],
          ["fields.1.minLength", "many"],
        ]),
      ),
    ).toEqual({
      "fields.1.minLength": expect.stringContaining("number"),
    });
    expect(await refusal(rows([["fields.1.name", "_next"]]))).toEqual({ "fields.1.name": "fields[].name cannot be a special field (_next, _gotcha, …)." });
    expect(
      await refusal(
        rows([
          ["fields.1.name", "n"],
          ["fields.1.type", "select"],
        ]),
      ),
    ).toEqual({ "fields.1": "A select field needs its options." });
    expect(
      await refusal(
        rows([
          ["fields.1.name", "n"],
          ["fields.2.name", "n"],
          ["fields.2.type", "text"],
        ]),
      ),
    ).toEqual({ fields: "fields must not declare one name twice." });
    expect(await refusal(new URLSearchParams([["otherFields", "hide"]]))).toEqual({ otherFields: "otherFields must be one of keep, drop, refuse." });
  });

  test("Add another field keeps the rows as typed and adds a blank one; no rows at all is one blank row", () => {
    const added = fieldsFromPost(
      new URLSearchParams([
        ["fields.0.name", "email"],
        ["fields.0.type", "email"],
        ["intent", "add"],
      ]),
    );
    expect(added.rows.map((row) => [row.name, row.type])).toEqual([
      ["email", "email"],
      ["", "text"],
    ]);
    expect(fieldsFromPost(new URLSearchParams()).rows).toHaveLength(1);
  });
});
