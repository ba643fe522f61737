/**
 * The dashboard's link as `serve` prints it: the admin token rides in the
 * URL fragment, which browsers never send, so it stays out of every log.
 */
export const DASHBOARD_PLUGIN_NAME = "dashboard";

/** The dashboard's page: its admin extension names it as its home, where `GET /` sends a browser. */
export const DASHBOARD_PATH = "/_sim/ui";

/**
 * @example
 * dashboardLink("http://127.0.0.1:4010", "adm_x"); // "http://127.0.0.1:4010/_sim/ui#token=adm_x"
 */
export function dashboardLink(baseUrl: string, adminToken: string): string {
  return `${baseUrl}${DASHBOARD_PATH}#token=${encodeURIComponent(adminToken)}`;
}
