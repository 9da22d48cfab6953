/**
 * Which error codes an operation can answer with: those the pipeline raises for every route of
 * its kind (src/http/pipeline.ts, src/services/auth/authenticator.ts), plus the route's own `doc.errors`.
 */
import { ErrorCode } from '../../domain/errors.js';
import type { Route } from '../route.js';

export function errorCodesOf(route: Route): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.doc?.errors ?? []);
  if (route.access.kind !== 'public') {
    codes.add(ErrorCode.UNAUTHORIZED);
    // Any key can be refused for its ipWhitelist, not only on permission routes.
    codes.add(ErrorCode.FORBIDDEN);
    if (route.access.kind !== 'operator') {
      codes.add(ErrorCode.KEY_EXPIRED);
      codes.add(ErrorCode.RATE_LIMIT_EXCEEDED);
    }
  }
  if (route.body !== undefined) {
    for (const code of [ErrorCode.INVALID_REQUEST, ErrorCode.PAYLOAD_TOO_LARGE, ErrorCode.UNSUPPORTED_MEDIA_TYPE, ErrorCode.REQUEST_TIMEOUT]) codes.add(code);
  }
  // A path parameter that is not valid percent-encoding.
  if (route.path.includes(':')) codes.add(ErrorCode.INVALID_REQUEST);
  codes.add(ErrorCode.INTERNAL_ERROR);
  codes.add(ErrorCode.SERVICE_UNAVAILABLE);
  return [...codes];
}
