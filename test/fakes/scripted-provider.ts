/**
 * What every scripted model-provider fake keeps between requests: the replies queued for its next
 * requests, the requests it recorded, and how its model list answers. The fakes hand `enqueue`,
 * `setModelList` and `reset` to tests as they are, so a test scripts each provider the same way.
 */
import type { RecordedRequest, ScriptedModelList } from './fake-http.js';

export class ScriptedProvider<Reply> {
  readonly queue: Reply[] = [];
  readonly requests: RecordedRequest[] = [];
  modelList: ScriptedModelList = {};

  readonly enqueue = (...replies: Reply[]): void => {
    this.queue.push(...replies);
  };

  readonly setModelList = (script: ScriptedModelList): void => {
    this.modelList = script;
  };

  /** Forgets the queued replies, the recorded requests and the model list's script. */
  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    this.modelList = {};
  }
}
