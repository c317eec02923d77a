// The package under test, as it ships (npm test compiles dist/ first).
export * from '../dist/index.js';
