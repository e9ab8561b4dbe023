import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Linux's default `net.ipv4.ip_local_port_range`, for a machine whose setting cannot be read. */
const DEFAULT_EPHEMERAL_RANGE: PortRange = { low: 32_768, high: 60_999 };
/** How many ports below the ephemeral range freeTcpPort picks from. */
const WINDOW_SIZE = 16_384;
const LOWEST_UNPRIVILEGED_PORT = 1_024;
/** The fewest ports a window below the ephemeral range must hold to be picked from. */
const MIN_WINDOW_SIZE = 1_024;
/** Random picks that found the port taken before freeTcpPort lets the kernel choose one instead. */
const PICK_ATTEMPTS = 64;

/** A range of TCP ports, both ends included. */
export interface PortRange {
  low: number;
  high: number;
}

/** The kernel's range for the local ports of outgoing connections (and of a bind to port 0). */
export function ephemeralPortRange(path = '/proc/sys/net/ipv4/ip_local_port_range'): PortRange {
  try {
    const [low = Number.NaN, high = Number.NaN] = readFileSync(path, 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low <= high) return { low, high };
  } catch {
    // Not Linux, or no /proc: the default range.
  }
  return DEFAULT_EPHEMERAL_RANGE;
}

/**
 * The ports freeTcpPort picks from: the WINDOW_SIZE ports just below the ephemeral range, or undefined when that
 * range starts too low to leave room.
 */
export function pickWindow(ephemeral: PortRange): PortRange | undefined {
  const high = ephemeral.low - 1;
  const low = Math.max(LOWEST_UNPRIVILEGED_PORT, ephemeral.low - WINDOW_SIZE);
  return high - low + 1 >= MIN_WINDOW_SIZE ? { low, high } : undefined;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function kernelChosenPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface FreePortPicker {
  /** A port nothing listens on now, never one this picker handed out before. */
  next(): Promise<number>;
}

/**
 * Picks ports at random from `window`, so that no outgoing connection can take one between the pick and the server's
 * bind: the kernel gives those their local port from the ephemeral range only. A bind to port 0 (the kernel's choice)
 * draws from that same range, and on a busy machine a test's port was taken that way before its program could bind it.
 */
export function freePortPicker(
  window: PortRange | undefined = pickWindow(ephemeralPortRange()),
  random: () => number = Math.random,
): FreePortPicker {
  // Ports this process handed out: a server may not have bound its port yet, so a free port is not yet a fresh one.
  const handedOut = new Set<number>();
  return {
    async next() {
      if (window) {
        const size = window.high - window.low + 1;
        for (let attempt = 0; attempt < PICK_ATTEMPTS; attempt++) {
          const port = window.low + Math.floor(random() * size);
          if (handedOut.has(port)) continue;
          // Marked before the check: a call made meanwhile (Promise.all of several) picks another.
          handedOut.add(port);
          if (await canListen(port)) return port;
          handedOut.delete(port);
        }
      }
      for (;;) {
        const port = await kernelChosenPort();
        if (!handedOut.has(port)) {
          handedOut.add(port);
          return port;
        }
      }
    },
  };
}

// Made on first use: a process that imports the launcher but starts no server reads no /proc at start-up.
let processPicker: FreePortPicker | undefined;

/** A TCP port nothing listens on right now, for a server this process starts a moment later (see freePortPicker). */
export function freeTcpPort(): Promise<number> {
  processPicker ??= freePortPicker();
  return processPicker.next();
}

/** The server (or program) could not bind its port: another process took it after freeTcpPort picked it. */
export function isAddressInUse(err: unknown): boolean {
  return /address already in use/i.test(String(err));
}
