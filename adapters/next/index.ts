export { dossierTracingIncludes } from './tracing.js';
