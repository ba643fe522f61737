/**
 * `airtime-harness scenarios accounts | head -1`: once the reader has gone,
 * writing to the pipe fails with EPIPE, which Node raises as an unhandled
 * error with a stack trace. There is nobody left to tell, so the command
 * stops quietly, successfully, as Unix tools do.
 */

let installed = false;

export function exitQuietlyOnClosedPipe(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(0);
      throw error;
    });
  }
}
