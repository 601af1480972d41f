// dossier/serve: `dossier serve` as a function, for an app of one's own that mounts Dossier (examples/serve-*.ts).
export { serve, type ServeContext, type ServerMaker } from '../cli/serve.js';
