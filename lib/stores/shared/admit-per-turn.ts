import type { Admission, AdmissionStore } from '../../ports/admission-store.js';
import type { Clock } from '../../ports/clock.js';
import { perTurn, type PerTurnOptions } from './per-turn.js';
import { planAdmission, type AdmissionPlan } from './admission-plan.js';

/**
 * An `admit` whose admissions, asked during one turn of the event loop, go to the store together at its
 * end ({@link perTurn}): one script call, function call or transaction for many requests, which the store
 * runs as one atomic step, in order. A secret that cannot be a key is refused with no store call.
 */
export function admitPerTurn(
  clock: Clock,
  send: (plans: AdmissionPlan[], since: number) => Promise<Admission[]>,
  options?: PerTurnOptions,
): AdmissionStore['admit'] {
  const admit = perTurn(send, options);
  return (secret, kind, defaultLimit) => {
    const plan = planAdmission(secret, kind, defaultLimit, clock.now());
    return plan === null ? Promise.resolve({ status: 'invalid' }) : admit(plan);
  };
}
