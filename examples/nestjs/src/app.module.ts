import { Module } from '@nestjs/common';
import { dossierProvider, DossierShutdown } from './dossier.provider';
import { LookupController } from './lookup.controller';

@Module({ controllers: [LookupController], providers: [dossierProvider, DossierShutdown] })
export class AppModule {}
