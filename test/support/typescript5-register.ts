import { register } from 'node:module';

// Imported with `node --import` before openapi-typescript's command line (see typescript5.ts).
register('./typescript5.js', import.meta.url);
