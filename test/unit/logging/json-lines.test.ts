import { expect } from 'chai';
import { createJsonLinesLogger, SILENT_LOGGER } from '../../../lib/logging/json-lines.js';

describe('the default logger of createDossier (JSON lines)', () => {
  it('writes one JSON object a line: level, time, the fields, msg', () => {
    const lines: string[] = [];
    const logger = createJsonLinesLogger('info', (line) => lines.push(line));
    logger.info('request', { method: 'GET', status: 200 });
    expect(lines).to.have.length(1);
    expect(lines[0]!.endsWith('\n')).to.equal(true);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(line)).to.deep.equal(['level', 'time', 'method', 'status', 'msg']);
    expect(line).to.include({ level: 'info', method: 'GET', status: 200, msg: 'request' });
    expect(new Date(line.time as string).toISOString()).to.equal(line.time);
  });

  it('writes from its level up, and nothing at silent', () => {
    const written = (level: 'debug' | 'info' | 'warn' | 'error' | 'silent'): string[] => {
      const lines: string[] = [];
      const logger = createJsonLinesLogger(level, (line) => lines.push(line));
      logger.info('i');
      logger.warn('w');
      logger.error('e');
      return lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    };
    expect(written('debug')).to.deep.equal(['i', 'w', 'e']);
    expect(written('info')).to.deep.equal(['i', 'w', 'e']);
    expect(written('warn')).to.deep.equal(['w', 'e']);
    expect(written('error')).to.deep.equal(['e']);
    expect(written('silent')).to.deep.equal([]);
    expect(createJsonLinesLogger('silent')).to.equal(SILENT_LOGGER);
  });
});
