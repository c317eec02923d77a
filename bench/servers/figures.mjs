// How the bench:server report writes its figures: the same rounding in
// every table and sentence.

export const fmt = {
  ms: (value) => (value < 100 ? value.toFixed(1) : value.toFixed(0)),
  us: (value) => (value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)),
  rps: (value) => Math.round(value).toLocaleString('en-US'),
  mib: (bytes) => (bytes === undefined ? '–' : (bytes / 2 ** 20).toFixed(1)),
  ratio: (ratio) => (ratio === undefined ? 'n/a' : `${ratio.toFixed(2)}×`),
};
