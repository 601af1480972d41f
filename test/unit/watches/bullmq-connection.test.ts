import { expect } from 'chai';
import { bullmqPostgresConnection } from '../../../lib/watches/jobs/bullmq-jobs.js';

describe("BullMQ's PostgreSQL connection", () => {
  it('keeps its tables in their own schema, and moves the URL options where they cannot override its search path', () => {
    expect(
      bullmqPostgresConnection('postgres://u:p@db.example:5432/app?options=-c%20search_path%3Dtenant_a&sslmode=require'),
    ).to.deep.equal({
      connectionString: 'postgres://u:p@db.example:5432/app?sslmode=require',
      options: '-c search_path=tenant_a',
      schema: 'dossier_jobs',
      migrate: true,
    });
    expect(bullmqPostgresConnection('postgresql://db.example/app')).to.deep.equal({
      connectionString: 'postgresql://db.example/app',
      schema: 'dossier_jobs',
      migrate: true,
    });
  });
});
