// What an uploaded file really is, for the dashboard's previews: read from its first bytes, never from its name
// or from the type the visitor's browser claimed. Only raster images are previewed: an SVG is a document that
// may hold script and links, so it is never one of them.

/** The types a submission page may show as an image (the claimed type decides whether to try). */
export const PREVIEW_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) => bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);

/** The raster image type of these bytes (PNG, JPEG, GIF or WebP) by their signature; null for anything else, SVG included. */
export function imageTypeOf(bytes: Uint8Array): string | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return "image/gif";
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return null;
}
