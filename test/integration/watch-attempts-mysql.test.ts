import { watchEngineCases } from '../support/watch-engines.js';
import { attemptsOnceSuite } from './watch-attempts.suite.js';

// A file per engine: each takes about a minute of real time, which the parallel runs share.
attemptsOnceSuite(watchEngineCases().find((engine) => engine.name === 'mysql (timers)')!);
