export { answerFrameworkError, dossierPlugin, type DossierPluginOptions } from './plugin.js';
export { answerClientError, applyKeepAlive, serverOptionsFromEnv, type ServerOptions } from '../http/index.js';
