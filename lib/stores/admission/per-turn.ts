import type { Admission } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import type { LookupKind } from '../../ports/lookup-service.js';
import { planAdmission, type AdmissionPlan } from './plan.js';

interface Waiting {
  plan: AdmissionPlan;
  resolve(admission: Admission): void;
  reject(error: unknown): void;
}

/**
 * An `admit` whose admissions, asked during one turn of the event loop, go to the store together at its
 * end: one script call, function call or transaction for many requests, which the store runs as one
 * atomic step, in order. `send` answers each plan's admission, in the plans' order; when it fails, every
 * admission of the batch fails with its error. A secret that cannot be a key is refused with no store call.
 */
export function admitPerTurn(
  clock: Clock,
  send: (plans: AdmissionPlan[]) => Promise<Admission[]>,
): (secret: string, kind: LookupKind, defaultLimit: number) => Promise<Admission> {
  let queue: Waiting[] = [];
  const flush = async (): Promise<void> => {
    const batch = queue;
    queue = [];
    try {
      const admissions = await send(batch.map((entry) => entry.plan));
      batch.forEach((entry, index) => entry.resolve(admissions[index]!));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  };
  return (secret, kind, defaultLimit) => {
    const plan = planAdmission(secret, kind, defaultLimit, clock.now());
    if (plan === null) return Promise.resolve({ status: 'invalid' });
    return new Promise<Admission>((resolve, reject) => {
      queue.push({ plan, resolve, reject });
      if (queue.length === 1) setImmediate(() => void flush());
    });
  };
}
