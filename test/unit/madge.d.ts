// madge ships no types; what test/unit/architecture.test.ts uses of its API (https://github.com/pahen/madge#api).
declare module 'madge' {
  interface MadgeResult {
    /** Each file (relative to baseDir) with the files it imports. */
    obj(): Record<string, string[]>;
    /** Each cycle as the files along it. */
    circular(): string[][];
    /** Files madge could not resolve or read. */
    warnings(): { skipped: string[] };
  }
  interface MadgeConfig {
    baseDir?: string;
    fileExtensions?: string[];
    tsConfig?: string;
  }
  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
