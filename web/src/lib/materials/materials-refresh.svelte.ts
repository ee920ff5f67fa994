/**
 * Keeps the studio's pickers current while a teacher makes a knowledge base, rubric or file in
 * another tab (the pickers' empty states link there in a new tab, so the unsaved form is never
 * left). A picker reads `materialsVersion()` in its effect and loads its list again when it
 * changes: when a page of this app announces a new one (a BroadcastChannel between the tabs of
 * this origin), and when the teacher comes back to the tab (focus, or the tab shown again), which
 * covers pages that do not announce.
 */
const CHANNEL_NAME = 'merino-materials';

let version = $state(0);
let listening = false;
let channel: BroadcastChannel | undefined;

function bump(): void {
  version += 1;
}

function channelOf(): BroadcastChannel | undefined {
  if (channel === undefined && typeof BroadcastChannel !== 'undefined') channel = new BroadcastChannel(CHANNEL_NAME);
  return channel;
}

function listen(): void {
  if (listening || typeof window === 'undefined') return;
  listening = true;
  channelOf()?.addEventListener('message', bump);
  window.addEventListener('focus', bump);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') bump();
  });
}

/** A number that changes whenever the lists of materials may have changed; read it in an effect to reload. */
export function materialsVersion(): number {
  listen();
  return version;
}

/** Tells the app's other tabs that a knowledge base, rubric or file was made or deleted. */
export function announceMaterialsChanged(): void {
  channelOf()?.postMessage('changed');
}
