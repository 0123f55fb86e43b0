// The Content-Security-Policy of the browser apps served from installed packages (GraphiQL at
// /graphql, Swagger UI at /docs): scripts and styles only from this origin, no inline script, no
// eval, no inline <style>. Both apps style elements through the CSSOM, which style-src does not
// govern, so neither needs 'unsafe-inline' (the browser tests fail on any CSP violation); their CSS
// embeds fonts and icons as data: URLs. One policy, so the two pages cannot drift apart.
export const APP_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
