/** Reads a knowledge base's job event stream over real HTTP, as a browser's EventSource would, event by event. */
export interface JobEventStream {
  status: number;
  /** The error body when the stream was refused. */
  body: any;
  /** Waits for the next event that `matches` (earlier ones are passed over); throws if the stream ends first. */
  next(matches: (event: any) => boolean): Promise<any>;
  /** Every event read so far, in the order the server sent them. */
  received: any[];
  close(): void;
}

export async function openJobEvents(server: { baseUrl: string }, token: string | undefined, path: string): Promise<JobEventStream> {
  const aborter = new AbortController();
  const response = await fetch(`${server.baseUrl}${path}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal: aborter.signal,
  });
  if (response.status !== 200 || response.body === null) {
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : JSON.parse(text),
      next: () => Promise.reject(new Error('refused')),
      received: [],
      close: () => {},
    };
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  const pending: any[] = [];
  const received: any[] = [];
  async function readEvent(): Promise<any> {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data === undefined) continue;
        const event = { ...JSON.parse(data.slice(6)), sse_event: block.startsWith('event: ') ? block.split('\n')[0]!.slice(7) : 'message' };
        received.push(event);
        return event;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('the event stream ended');
      buffered += value;
    }
  }
  return {
    status: 200,
    body: undefined,
    received,
    async next(matches) {
      const index = pending.findIndex(matches);
      if (index >= 0) return pending.splice(index, 1)[0];
      for (;;) {
        const event = await readEvent();
        if (matches(event)) return event;
        pending.push(event);
      }
    },
    close: () => aborter.abort(),
  };
}
