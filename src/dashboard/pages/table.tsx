/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { ScrollTable } from "./layout.tsx";

/** One column of a dashboard table: its heading, how it shows, and what each row puts in it. */
export interface Column<T> {
  title: string;
  /** The heading is for screen readers only (a column of buttons). */
  hideTitle?: boolean;
  /** Left out on a phone, where only what matters fits. */
  wide?: boolean;
  /** A number, aligned to the right. */
  num?: boolean;
  /** More classes of each cell (`clip` cuts long text, `row-actions` lays buttons in a row). */
  cellClass?: string;
  cell: (row: T) => Child;
}

const classes = (...names: (string | false | undefined)[]) => names.filter(Boolean).join(" ") || undefined;

/**
 * A table of rows, one column declaration each (the team, webhooks, deliveries and activity pages): it scrolls
 * sideways on a narrow screen, inside a labelled region. A column given as `false` is left out (a control the
 * reader's role does not allow).
 */
export function DataTable<T>({ label, columns, rows }: { label: string; columns: (Column<T> | false)[]; rows: T[] }) {
  const shown = columns.filter((column): column is Column<T> => column !== false);
  return (
    <ScrollTable label={label}>
      <thead>
        <tr>
          {shown.map((column) => (
            <th scope="col" class={classes(column.num && "num", column.wide && "wide-only")}>
              {column.hideTitle ? <span class="sr-only">{column.title}</span> : column.title}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr>
            {shown.map((column) => (
              <td class={classes(column.cellClass, column.num && "num", column.wide && "wide-only")}>{column.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}
