/** One metered request, as recorded for usage reports. */
/** One authenticated request, as recorded for `/v1/api-keys/{id}/activity`. */
export interface UsageEntry {
  readonly keyId: string;
  readonly at: Date;
  readonly endpoint: string;
  readonly method: string;
  readonly statusCode: number;
  readonly ipAddress: string;
}
