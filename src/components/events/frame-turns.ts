// Turns of the event loop for large frames: the frames that carry contexts (up to
// SKEIN_EVENT_MAX_BYTES each) are written one per turn, so the requests and frames of everyone else
// get in between. Twenty sockets of one account took the same 160 KiB event at once: written in one
// stretch (each encoded and handed to the kernel), they held every other request back for it.
const waiting: (() => void)[] = [];
let draining = false;

/** Resolves at a turn of the event loop of its own, after the large frames queued before it. */
export function largeFrameTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!draining) {
      draining = true;
      setImmediate(drain);
    }
  });
}

function drain(): void {
  waiting.shift()?.();
  if (waiting.length > 0) setImmediate(drain);
  else draining = false;
}
