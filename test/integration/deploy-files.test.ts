import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SERVE_PACKAGES } from '../../adapters/cli/optional-adapters.js';
import { SETTINGS } from '../../lib/config/settings.js';
import { projectRoot } from '../support/paths.js';
import { closedPort } from '../support/closed-port.js';
import { startTestServer, eachAdapter } from '../support/harness.js';

const ROOT = projectRoot();
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

/** A Dockerfile instruction: its keyword and its arguments (continuation lines joined). */
interface Instruction {
  keyword: string;
  args: string;
  stage: number;
}

function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let stage = -1;
  const logical = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  for (const line of logical) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(trimmed);
    if (match === null) throw new Error(`not an instruction: ${trimmed}`);
    const keyword = match[1]!.toUpperCase();
    if (keyword === 'FROM') stage += 1;
    instructions.push({ keyword, args: match[2]!, stage });
  }
  return instructions;
}

/** The `npm run X` / `npm start` scripts a shell command runs. */
function npmScripts(command: string): string[] {
  return [...command.matchAll(/\bnpm\s+(?:run(?:-script)?\s+([\w:-]+)|(start|test))\b/g)].map((m) => m[1] ?? m[2]!);
}

function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env: { PATH: process.env.PATH, ...env } }, (error) =>
      resolve(error ? Number(error.code) : 0),
    );
  });
}

eachAdapter(() => {
  describe('the Dockerfile and examples/compose.yaml (no image is downloaded)', () => {
    const dockerfile = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    const last = Math.max(...dockerfile.map((i) => i.stage));
    const final = dockerfile.filter((i) => i.stage === last);

    it('builds in stages and runs the final one as a user that is not root', () => {
      expect(dockerfile.filter((i) => i.keyword === 'FROM').length).to.be.at.least(2);
      const user = final
        .filter((i) => i.keyword === 'USER')
        .at(-1)
        ?.args.trim();
      expect(user).to.be.a('string');
      expect(user).to.not.match(/^(root|0)(:|$)/);
      expect(final.some((i) => i.keyword === 'RUN' && /apt-get|g\+\+/.test(i.args))).to.equal(false);
    });

    it('installs exactly the locked production dependencies (npm ci --omit=dev) for the node_modules the image runs with', () => {
      expect(dependencyStage().some((i) => /npm ci\b.*--omit=dev/.test(i.args))).to.equal(true);
    });

    /** The RUN instructions of the stage whose node_modules the image runs with. */
    function dependencyStage(): Instruction[] {
      const copy = final.find((i) => i.keyword === 'COPY' && /--from=\S+/.test(i.args) && i.args.includes('node_modules'))!;
      const name = /--from=(\S+)/.exec(copy.args)![1];
      const stage = dockerfile.find((i) => i.keyword === 'FROM' && i.args.split(/\s+AS\s+/i)[1] === name)!.stage;
      return dockerfile.filter((i) => i.stage === stage && i.keyword === 'RUN');
    }

    it('builds the native module of every dependency that has one, for the node_modules the image runs with', () => {
      // An install with --ignore-scripts skips node-gyp: a native dependency left out of `npm rebuild` has no binary.
      const native = Object.keys(pkg.dependencies).filter((name) => existsSync(join(ROOT, 'node_modules', name, 'binding.gyp')));
      expect(native).to.include('better-sqlite3');
      const runs = dependencyStage().map((i) => i.args);
      expect(runs.some((run) => /--ignore-scripts/.test(run))).to.equal(true);
      const rebuilt = runs.flatMap((run) => [...run.matchAll(/npm rebuild ([^&;]+)/g)].flatMap((m) => m[1]!.trim().split(/\s+/)));
      expect(rebuilt).to.have.members(native);
    });

    it("installs the Koa adapter's optional peers, which serve needs, beside the production dependencies", () => {
      // The stage turns the peers into dependencies of its copy of package.json, then installs without dev.
      const step = dependencyStage().find((i) => i.args.includes('node -e'));
      expect(step, 'a step that makes the peers dependencies').to.not.equal(undefined);
      const run = step!.args;
      const script = /node -e "((?:[^"\\]|\\.)*)"/.exec(run)![1]!;
      expect(run.indexOf('npm ci --omit=dev')).to.be.greaterThan(run.indexOf(script));
      const dir = mkdtempSync(join(tmpdir(), 'dossier-deps-'));
      try {
        copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
        execFileSync(process.execPath, ['-e', script], { cwd: dir });
        const image = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof pkg;
        for (const name of SERVE_PACKAGES) {
          expect(image.dependencies[name], name).to.equal(pkg.peerDependencies[name]);
          expect(image.devDependencies, name).to.not.have.property(name);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('runs only commands that exist: npm scripts of package.json, and the start command', () => {
      for (const run of dockerfile.filter((i) => i.keyword === 'RUN')) {
        for (const script of npmScripts(run.args)) expect(pkg.scripts, `npm run ${script}`).to.have.property(script);
      }
      const cmd = JSON.parse(final.find((i) => i.keyword === 'CMD')!.args) as string[];
      expect(cmd.join(' ')).to.equal(pkg.scripts.start);
      expect(existsSync(join(ROOT, 'dist', 'adapters', 'cli', 'main.js'))).to.equal(true);
      for (const copy of dockerfile.filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))) {
        const sources = copy.args.split(/\s+/).slice(0, -1);
        for (const source of sources) expect(existsSync(join(ROOT, source)), `COPY ${source}`).to.equal(true);
      }
    });

    it('has a HEALTHCHECK on /healthz whose command passes against a running server and fails without one', async () => {
      const healthcheck = final.find((i) => i.keyword === 'HEALTHCHECK');
      expect(healthcheck?.args).to.include('/healthz');
      const command = JSON.parse(healthcheck!.args.slice(healthcheck!.args.indexOf('CMD') + 3).trim()) as string[];
      expect(command[0]).to.equal('node');
      const server = await startTestServer();
      const port = new URL(server.url).port;
      try {
        expect(await runNode(command.slice(1), { PORT: port })).to.equal(0);
      } finally {
        await server.close();
      }
      expect(await runNode(command.slice(1), { PORT: String(await closedPort()) })).to.equal(1);
    });

    it('compose: Redis and two Dossier replicas that share it, configured with variables Dossier knows', () => {
      const compose = parseYaml(readFileSync(join(ROOT, 'examples', 'compose.yaml'), 'utf8'), { merge: true }) as {
        services: Record<
          string,
          {
            image?: string;
            build?: { context: string; dockerfile: string };
            environment?: Record<string, string>;
            command?: string[];
            depends_on?: Record<string, unknown>;
            ports?: string[];
          }
        >;
      };
      const services = Object.entries(compose.services);
      const redis = services.filter(([, service]) => service.image?.startsWith('redis:'));
      expect(redis).to.have.length(1);
      const replicas = services.filter(([, service]) => service.build !== undefined);
      expect(replicas).to.have.length(2);
      const variables = Object.values(SETTINGS).map((setting) => setting.variable);
      for (const [name, service] of replicas) {
        expect(existsSync(join(ROOT, 'examples', service.build!.context, service.build!.dockerfile)), name).to.equal(true);
        expect(service.environment?.DOSSIER_STORE, name).to.match(new RegExp(`^redis://${redis[0]![0]}:6379`));
        expect(service.environment?.DOSSIER_CACHE, name).to.match(new RegExp(`^redis://${redis[0]![0]}:6379`));
        expect(service.depends_on).to.have.property(redis[0]![0]);
        for (const variable of Object.keys(service.environment ?? {})) {
          if (variable.startsWith('DOSSIER_')) expect(variables, variable).to.include(variable);
        }
        if (service.command !== undefined) expect(service.command.join(' ')).to.equal(pkg.scripts.start);
      }
      expect(new Set(replicas.flatMap(([, service]) => service.ports ?? [])).size).to.equal(2);
    });
  });
});
