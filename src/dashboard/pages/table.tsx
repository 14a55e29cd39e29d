/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { ScrollTable } from "./layout.tsx";

/** One column of a dashboard table: its heading, how it shows, and what each row puts in it. */
export interface Column<T> {
  title: string;
  /** The heading is for screen readers only (a column of buttons). */
  hideTitle?: boolean;
  /** A number, aligned to the right. */
  num?: boolean;
  /** More classes of each cell (`row-actions` lays buttons in a row). */
  cellClass?: string;
  /**
   * A long text cut to the column's width on a wide screen: the whole text, which the cell carries as its
   * `title` (and shows whole, wrapped, on a phone).
   */
  clip?: (row: T) => string;
  cell: (row: T) => Child;
}

const classes = (...names: (string | false | undefined)[]) => names.filter(Boolean).join(" ") || undefined;

/**
 * A table of rows, one column declaration each (the keys, team, webhooks, deliveries and activity pages). On a
 * wide screen it fits its card, long texts cut with their whole text in a `title`; on a phone each row is a card
 * of `heading: value` lines. A column given as `false` is left out (a control the reader's role does not allow).
 */
export function DataTable<T>({
  label,
  columns,
  rows,
  rowClass,
}: {
  label: string;
  columns: (Column<T> | false)[];
  rows: T[];
  rowClass?: (row: T) => string | undefined;
}) {
  const shown = columns.filter((column): column is Column<T> => column !== false);
  return (
    <ScrollTable label={label} cards>
      <thead>
        <tr>
          {shown.map((column) => (
            <th scope="col" class={classes(column.num && "num", column.clip && "clip")}>
              {column.hideTitle ? <span class="sr-only">{column.title}</span> : column.title}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr class={rowClass?.(row)}>
            {shown.map((column) => (
              <td
                class={classes(column.cellClass, column.num && "num", column.clip && "clip")}
                data-label={column.hideTitle ? undefined : column.title}
                title={column.clip?.(row) || undefined}
              >
                {column.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}
