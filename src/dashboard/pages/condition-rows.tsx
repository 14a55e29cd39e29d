/** @jsxImportSource hono/jsx */
// A destination's conditions (`when`, docs/api.md "Webhooks") as rows of field, test and value, so that no one
// types JSON: the rows as posted are read back into the API's list by destination-routes.tsx.
import { type Condition, CONDITION_OPS, type ConditionOp, MAX_CONDITIONS } from "../../services/outbox/conditions.ts";

/** How each test reads in the dashboard. */
const OP_LABELS: Record<ConditionOp, string> = { equals: "is", contains: "contains", in: "is one of (one per line)", notEmpty: "is not empty" };

/** Empty rows shown after the filled ones: without a script, more rows come with the next save. */
const SPARE_ROWS = 2;

/** One row as the inputs hold it. */
interface ConditionRow {
  field: string;
  op: string;
  value: string;
}

/** The rows of saved conditions: a list's values one per line. */
export function rowsOf(when: readonly Condition[]): ConditionRow[] {
  return when.map((c) => ({ field: c.field, op: c.op, value: Array.isArray(c.value) ? c.value.join("\n") : (c.value ?? "") }));
}

/** The rows as typed into a form that was refused (`typed` by input name), up to the last one with a field. */
export function typedRows(typed: Record<string, string>, prefix: string): ConditionRow[] {
  const rows: ConditionRow[] = [];
  for (let i = 0; i < MAX_CONDITIONS; i++) {
    const at = (key: string) => typed[`${prefix}.when.${i}.${key}`] ?? "";
    rows.push({ field: at("field"), op: at("op") || "equals", value: at("value") });
  }
  const last = rows.findLastIndex((row) => row.field.trim() !== "" || row.value.trim() !== "");
  return rows.slice(0, last + 1);
}

/** The conditions of the rows posted under `prefix` (`prefix.when.<i>.field|op|value`); a row without field or value is left out. */
export function postedConditions(body: URLSearchParams, prefix: string): Record<string, unknown>[] {
  const conditions: Record<string, unknown>[] = [];
  for (let i = 0; i < MAX_CONDITIONS; i++) {
    const field = (body.get(`${prefix}.when.${i}.field`) ?? "").trim();
    const op = body.get(`${prefix}.when.${i}.op`) ?? "equals";
    const value = (body.get(`${prefix}.when.${i}.value`) ?? "").replace(/\r\n?/g, "\n");
    if (!field && !value.trim()) continue;
    if (op === "notEmpty") conditions.push({ field, op });
    else if (op === "in")
      conditions.push({
        field,
        op,
        value: value
          .split("\n")
          .map((line) => line.trim())
          .filter(Boolean),
      });
    else conditions.push({ field, op, value: value.trim() });
  }
  return conditions;
}

/** The names of the inputs a form of conditions posts under `prefix`: what is kept when the form is refused. */
export function conditionInputs(prefix: string): string[] {
  return Array.from({ length: MAX_CONDITIONS }, (_, i) => ["field", "op", "value"].map((key) => `${prefix}.when.${i}.${key}`)).flat();
}

/** The rows of a form's conditions: the given ones, then spare empty ones; the error of the whole list below them. */
export function ConditionRows({ prefix, rows, error }: { prefix: string; rows: ConditionRow[]; error?: string }) {
  const shown = [...rows, ...Array.from({ length: SPARE_ROWS }, () => ({ field: "", op: "equals", value: "" }))].slice(0, MAX_CONDITIONS);
  const id = (i: number, key: string) => `f-${prefix}.when.${i}.${key}`;
  return (
    <fieldset class="conditions">
      <legend>Conditions: sent only for submissions that meet them all (none: every submission)</legend>
      {shown.map((row, i) => (
        <div class="grid">
          <div class="field">
            <label for={id(i, "field")}>{`Condition ${i + 1}: field`}</label>
            <input id={id(i, "field")} name={`${prefix}.when.${i}.field`} type="text" value={row.field} autocomplete="off" />
          </div>
          <div class="field">
            <label for={id(i, "op")}>{`Condition ${i + 1}: test`}</label>
            <select id={id(i, "op")} name={`${prefix}.when.${i}.op`}>
              {CONDITION_OPS.map((op) => (
                <option value={op} selected={op === row.op}>
                  {OP_LABELS[op]}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for={id(i, "value")}>{`Condition ${i + 1}: value`}</label>
            <textarea id={id(i, "value")} name={`${prefix}.when.${i}.value`} rows={1}>
              {row.value}
            </textarea>
          </div>
        </div>
      ))}
      {error ? <p class="error">{error}</p> : null}
    </fieldset>
  );
}
