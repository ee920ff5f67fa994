/**
 * Liveness and readiness for load balancers and operators: whether this process can reach its
 * store, and whether it should get new requests (not while it drains to stop). It lives apart from
 * the routes so that HTTP never runs SQL itself (DESIGN §2).
 */
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import type { Dialect } from '../store/dialect.js';
import type { Database } from '../store/schema.js';
import { checkStore } from '../store/store-health.js';
import type { HealthReport } from './health-schemas.js';
import type { ServerDrain } from './server-drain.js';

export class HealthService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly drain: ServerDrain,
  ) {}

  /** The report when the store answers; `store_unavailable` (503) when it does not. */
  async check(): Promise<HealthReport> {
    try {
      await checkStore(this.db);
    } catch (error) {
      throw new AppError('store_unavailable', undefined, { cause: error });
    }
    return { status: 'ok', database: this.dialect };
  }

  /** Whether a load balancer should send this process new requests: not while it drains, nor while the store is unreachable. */
  async ready(): Promise<HealthReport> {
    if (this.drain.isDraining) throw new AppError('server_shutting_down');
    return this.check();
  }
}
