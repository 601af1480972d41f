import { expect } from 'chai';
import { bullmqPostgresConnection, defaultJobQueuePrefix } from '../../../lib/watches/jobs/bullmq-jobs.js';

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

  it("commits a worker's transactions without waiting for the WAL flush, and the queues' (which add jobs) as the server does", () => {
    const tenant = 'postgres://db.example/app?options=-c%20search_path%3Dtenant_a';
    expect(bullmqPostgresConnection(tenant, { worker: true }).options).to.equal(
      '-c search_path=tenant_a -c synchronous_commit=off',
    );
    expect(bullmqPostgresConnection('postgres://db.example/app', { worker: true }).options).to.equal('-c synchronous_commit=off');
    expect(bullmqPostgresConnection(tenant).options).to.equal('-c search_path=tenant_a');
  });
});

describe('the default job queue prefix', () => {
  it("is named after the schema of Dossier's tables on PostgreSQL, and dossier on the default schema and on Redis", () => {
    const tenant = 'postgres://db.example/app?options=-c%20search_path%3Dtenant_a%2Cpublic';
    expect(defaultJobQueuePrefix(tenant)).to.equal('dossier-tenant_a');
    expect(defaultJobQueuePrefix('postgres://db.example/app?options=--search_path%3D%22Tenant%22')).to.equal('dossier-Tenant');
    expect(defaultJobQueuePrefix('postgres://db.example/app?options=-c%20search_path%3Dpublic')).to.equal('dossier');
    expect(defaultJobQueuePrefix('postgresql://db.example/app?sslmode=require')).to.equal('dossier');
    expect(defaultJobQueuePrefix('redis://127.0.0.1:6379/2')).to.equal('dossier');
  });
});
