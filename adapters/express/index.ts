export { createDossierRouter, type ExpressOptions } from './router.js';
export { answerClientErrorsWithJson, applyKeepAlive, serverOptionsFromEnv, type ServerOptions } from '../http/index.js';
