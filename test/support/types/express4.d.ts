// Express 4, installed for the tests as `express4` (npm:express@^4): typed as Express, whose types
// (@types/express) cover what the tests use of both versions.
declare module 'express4' {
  import express from 'express';
  export default express;
}
