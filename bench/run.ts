import { documentScenarios } from './documents.js';
import { printReport, startBaseline } from './harness.js';
import { dnsAnswer, lookupScenarios } from './lookups.js';

// `npm run bench`: every scenario against a bare Koa baseline measured beside it, round by round.
const baseline = await startBaseline(await dnsAnswer());
const results = [...(await lookupScenarios()), ...(await documentScenarios())];
await baseline.close();
printReport(results);
