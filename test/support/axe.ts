import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults } from 'axe-core';
import type { Page } from 'playwright-core';

/** axe-core's browser build, evaluated in each page (over the DevTools protocol, so the pages' CSP does not apply). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical violations axe-core finds on the page as it is, one line each with where it is. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const results = await page.evaluate(() => (window as unknown as { axe: { run(): Promise<AxeResults> } }).axe.run());
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map(
        (node) => `${violation.id} (${violation.impact}): ${node.target.join(' ')}: ${node.failureSummary ?? ''}`,
      ),
    );
}
