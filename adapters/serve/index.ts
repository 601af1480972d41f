// dossier/serve: `dossier serve` as a function, for an app of one's own that mounts Dossier
// (examples/serve-*.ts), and the two settings of its Node server for an app that runs its own server.
export { serve, type ServeContext, type ServerMaker } from '../cli/serve.js';
export { answerClientErrorsWithJson, applyKeepAlive, serverOptionsFromEnv, type ServerOptions } from '../http/index.js';
