// The script is imported as text (with { type: "text" }) and served as a file, never run on the server.
declare const text: string;
export default text;
