import { expect } from 'chai';
import { DossierValidationError } from '../../lib/errors.js';

/** The field errors of the DossierValidationError that `run` throws; fails the test if it throws none or another. */
export function errorsOf(run: () => unknown): Record<string, string[]> {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(DossierValidationError);
    return (error as DossierValidationError).errors;
  }
  throw new Error('expected a validation error');
}
