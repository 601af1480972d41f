import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Dossier } from 'dossier';
import { createDossierRouter } from 'dossier/express';
import { DOSSIER } from './dossier.provider';

/**
 * All of Dossier under /dossier, on the app's Express. Made with `bodyParser: false`: Dossier reads its
 * own request bodies, so it is mounted before the JSON parser that the app's own routes get back here.
 */
export function mountDossier(app: NestExpressApplication): void {
  app.use('/dossier', createDossierRouter(app.get<Dossier>(DOSSIER)));
  app.useBodyParser('json');
}
