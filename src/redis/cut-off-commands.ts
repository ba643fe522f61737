/**
 * A cluster client that fails, rather than sends again, a command whose
 * node connection closed after the command was written to it.
 *
 * ioredis's `Cluster` answers every "Connection is closed." by sending the
 * command again 100 ms later (`retryDelayOnFailover`), with a fresh slot
 * map. Two different moments end that way, and only one is safe to repeat:
 *
 * - the command never left the client: its node's connection was still
 *   opening (a freshly started cluster, or a node found again after a
 *   reset), or closed while the command waited in its queue. Redis ran
 *   nothing; sending it again is what lets a fresh cluster's first commands
 *   succeed, so it stays;
 * - the command was written and its answer had not come back when the
 *   connection closed. Redis may have run it, and a script run twice (a
 *   placement, a compare-and-set, a delivery's insert) answers as if another
 *   process had done it. As on one server, it fails instead: the request
 *   answers 503 `store_unavailable`, and the caller's retry decides.
 *
 * The client cannot tell the two apart from the error, so each command
 * notes when it is written (`toWritable`, which ioredis calls exactly when
 * it writes a command to a socket, a pipeline's included) until an answer
 * comes back; a close that finds it outstanding is turned into an error the
 * `Cluster` (and a cluster pipeline) does not retry.
 */
import type { Cluster, Command } from "ioredis";

/** ioredis's message for a command whose connection closed (or was not open). */
const CONNECTION_CLOSED = "Connection is closed.";

/** A command Redis may have run: written, then its connection closed before the answer. */
class CommandCutOffError extends Error {
  constructor() {
    super("the connection to a Redis node closed after the command was sent; it may have run, so it is not sent again");
    this.name = "CommandCutOffError";
  }
}

type Rejecter = (error: Error) => void;

/** Commands already watched, so each is wrapped once however often the cluster routes it. */
const watched = new WeakSet<Command>();

/**
 * @example
 * const cluster = new (failCutOffCommands(Cluster))(seeds, options);
 */
export function failCutOffCommands(base: typeof Cluster): typeof Cluster {
  return class CutOffFailingCluster extends base {
    override sendCommand(...args: Parameters<Cluster["sendCommand"]>): unknown {
      watchWrites(args[0]);
      return super.sendCommand(...args);
    }
  };
}

/** Notes each write of `command` and fails a close that cuts one off before its answer. */
function watchWrites(command: Command): void {
  if (watched.has(command)) return;
  watched.add(command);
  let outstanding = false;
  const write = command.toWritable.bind(command);
  command.toWritable = (socket) => {
    const written = write(socket);
    outstanding = true;
    // Installed after each write: a pipeline's retry gives the command a new promise (and `reject`).
    const next: Rejecter = command.reject.bind(command);
    command.reject = (error: Error) => {
      if (outstanding && error.message === CONNECTION_CLOSED) {
        outstanding = false;
        next(new CommandCutOffError());
        return;
      }
      // Any other error is an answer (MOVED, TRYAGAIN, a timeout): nothing of this write is out any more.
      outstanding = false;
      next(error);
    };
    return written;
  };
}
