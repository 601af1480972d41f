import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { AppModule } from './app.module';
import { mountDossier } from './mount';

describe('the app with Dossier', () => {
  let app: NestExpressApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false });
    mountDossier(app);
    await app.init();
  });
  afterAll(() => app.close());

  it('GET /lookup/:domain answers from Dossier', async () => {
    const response = await request(app.getHttpServer()).get(`/lookup/${process.env.LOOKUP_DOMAIN ?? 'example.test'}`);
    expect(response.status).toBe(200);
    expect(response.body.a).toEqual([process.env.LOOKUP_ADDRESS ?? '192.0.2.10']);
  }, 30_000);

  it('GET /dossier/healthz is Dossier', async () => {
    const response = await request(app.getHttpServer()).get('/dossier/healthz');
    expect(response.status).toBe(200);
  });
});
