/** Where a short-lived command prints: text, or raw bytes (du prints names as the file system has them). */
export interface CommandOutput {
  readonly stdout: { write(chunk: string | Uint8Array): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(chunk: string | Uint8Array): unknown; readonly isTTY?: boolean };
}
