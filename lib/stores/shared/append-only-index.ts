import { DossierError } from '../../errors.js';
import type { CounterStore } from '../../ports/counter-store.js';
import type { KvStore } from '../../ports/kv-store.js';

/**
 * A list that only grows, shared safely by several processes: each entry takes a slot from an atomic
 * counter and is written under its own key, so no append overwrites another. Slots never change once
 * written, so this process keeps the ones it has read and asks the store only for newer ones.
 */
export class AppendOnlyIndex {
  private known: string[] = [];
  private knownLength = 0;
  private reading: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly kv: KvStore,
    private readonly counters: CounterStore,
    private readonly name: string,
  ) {}

  /** Adds `value` at the end. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async append(value: string): Promise<void> {
    await this.fill(await this.reserve(), value);
  }

  /**
   * Takes the next slot, to be written with {@link fill}: a caller may take it while it still works out
   * the value. Readers skip a slot taken and not yet written, as one taken by another process.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async reserve(): Promise<number> {
    const slot = await this.counters.increment(`${this.name}:length`);
    if (slot === null) throw new DossierError('ERR_STORE_UNAVAILABLE', 'The store did not hand out an index slot.');
    return slot;
  }

  /** Writes a slot taken with {@link reserve}. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  async fill(slot: number, value: string): Promise<void> {
    await this.kv.set(this.slotKey(slot), value);
  }

  /**
   * The values of `slots`, in order, `undefined` for a slot taken and not written yet.
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async at(slots: number[]): Promise<(string | undefined)[]> {
    const values: (string | undefined)[] = [];
    // Small batches: some Keyv adapters match getMany results in quadratic time.
    for (let start = 0; start < slots.length; start += 500) {
      values.push(...(await this.kv.getMany<string>(slots.slice(start, start + 500).map((slot) => this.slotKey(slot)))));
    }
    return values;
  }

  /**
   * Deletes the values of `slots`, once nothing will read them again (the slots stay taken).
   * @throws DossierError `ERR_STORE_UNAVAILABLE`
   */
  async remove(slots: number[]): Promise<void> {
    await Promise.all(slots.map((slot) => this.kv.delete(this.slotKey(slot))));
  }

  /** How many slots were ever taken. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  length(): Promise<number> {
    return this.counters.get(`${this.name}:length`);
  }

  /** Every value, oldest first. @throws DossierError `ERR_STORE_UNAVAILABLE` */
  values(): Promise<string[]> {
    // One read at a time, so that two callers do not both append the same new slots to `known`.
    const read = this.reading.then(() => this.read());
    this.reading = read.catch(() => {});
    return read;
  }

  private async read(): Promise<string[]> {
    const length = await this.length();
    if (length > this.knownLength) {
      const slots: number[] = [];
      for (let slot = this.knownLength + 1; slot <= length; slot += 1) slots.push(slot);
      const values = await this.at(slots);
      // A slot taken by another process but not yet written ends the prefix that can be kept.
      let kept = 0;
      for (const value of values) {
        if (value === undefined) break;
        this.known.push(value);
        kept += 1;
      }
      this.knownLength += kept;
      const later = values.slice(kept).filter((value): value is string => value !== undefined);
      if (later.length > 0) return [...this.known, ...later];
    }
    return [...this.known];
  }

  private slotKey(slot: number): string {
    return `${this.name}:${String(slot)}`;
  }
}
