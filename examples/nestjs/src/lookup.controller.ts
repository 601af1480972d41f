import { Controller, Get, Inject, Param } from '@nestjs/common';
import type { Dossier } from 'dossier';
import { DOSSIER } from './dossier.provider';

/** A route of the app's own that calls Dossier: the DNS records of a domain, through its cache. */
@Controller('lookup')
export class LookupController {
  constructor(@Inject(DOSSIER) private readonly dossier: Dossier) {}

  @Get(':domain')
  async dns(@Param('domain') domain: string): Promise<{ domain: string; a: string[]; cached: boolean }> {
    const { data, cached } = await this.dossier.lookups.lookup('dns', domain);
    return { domain, a: data.A.map((record) => record.address), cached };
  }
}
