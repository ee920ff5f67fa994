/**
 * What the pipeline core may ask of the rest of Merino. The core imports nothing from HTTP or
 * SQL: services build these ports for each request, already bound to the assistant owner's
 * identity, so a tool can only reach what that owner may reach.
 */

export interface FileText {
  text: string;
  /** True when the file held more than the characters asked for. */
  truncated: boolean;
}

/** Reads the text of the files the assistant owner may read, by the `file_path` the files API gave them. */
export interface FileReader {
  /** Rejects with an AppError (not_found, invalid_parameter) for a missing, foreign or unsafe path. */
  readText(filePath: string, maxCharacters: number): Promise<FileText>;
}
