/**
 * The web dashboard's files, served by the gateway under `/dashboard/`: `static/index.html` (the page) and what
 * `pnpm run build` bundles into `dist/` (its browser module and stylesheet). A URL, because this package is also
 * compiled for the browser and so imports nothing from Node.
 */
export const DASHBOARD_PACKAGE_URL = new URL('../', import.meta.url).href;

/** The URL prefix the dashboard is served under. */
export const DASHBOARD_PATH = '/dashboard';

export * from './view/index.js';
