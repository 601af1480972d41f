import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createDossier, optionsFromEnv, type Dossier } from 'dossier';

/** The token of the app's one Dossier. */
export const DOSSIER = Symbol('DOSSIER');

/** Makes the Dossier once, configured by the environment (DOSSIER_STORE, DOSSIER_ADMIN_TOKEN, …). */
export const dossierProvider = { provide: DOSSIER, useFactory: (): Dossier => createDossier(optionsFromEnv()) };

/** Closes the Dossier when the app stops (app.enableShutdownHooks() for SIGTERM). */
@Injectable()
export class DossierShutdown implements OnApplicationShutdown {
  constructor(@Inject(DOSSIER) private readonly dossier: Dossier) {}

  async onApplicationShutdown(): Promise<void> {
    await this.dossier.close();
  }
}
