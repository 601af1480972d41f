// The wire shapes of the contract that the CLI prints, as the HTTP API answers them: a key (docs/contract.md §5)
// and a watch (§11). The CLI reads this file rather than the whole contract.

export { keyJson, pageJson, type KeyJson } from './admin/keys.js';
export { wireDelivery, wireWatch } from './watch-shapes.js';
