// Types for privateMounts.mjs, so the TypeScript tests and the vitest pool can use it.
export declare function inPrivateMounts(argv: readonly string[]): string[];
export declare function privateMountsSkipReason(): string | undefined;
export declare function ownsMountNamespace(): boolean;
export declare function killedWithParent(argv: readonly string[]): string[];
export declare function reExecInPrivateMounts(label: string): Promise<string | undefined>;
export declare const NO_PRIVATE_MOUNTS: 'DISKPROBE_TEST_NO_PRIVATE_MOUNTS';
