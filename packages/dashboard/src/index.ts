/**
 * The web dashboard's files, served by the gateway under `/dashboard/`: `static/` (the page and its style) and
 * `dist/web/` (the compiled browser modules). A URL, because this package is also compiled for the browser and so
 * imports nothing from Node.
 */
export const DASHBOARD_PACKAGE_URL = new URL('../', import.meta.url).href;

/** The URL prefix the dashboard is served under. */
export const DASHBOARD_PATH = '/dashboard';

export * from './view/index.js';
