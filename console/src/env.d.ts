// esbuild bundles the stylesheet the entry imports; it exports nothing.
declare module '*.css';
