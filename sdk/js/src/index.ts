// The docmill SDK for JavaScript: Node 20+ and browsers, no dependencies.
export { Client, type Account, type CallOptions, type ClientOptions, type PipelineStep, type ProcessOptions, type Tool, type ToolParam } from "./client.js";
export { DocmillError, type FieldError } from "./errors.js";
export { Job, type JobError, type JobRecord, type JobResult, type JobStatus, type WaitOptions } from "./job.js";
export { Jobs, type JobPage, type ListOptions } from "./jobs.js";
export { TOOLS, type ToolParams, type ToolSlug } from "./tools.js";
export type { RetryEvent, RetryOptions } from "./transport.js";
export type { FileInput, UploadProgress } from "./upload.js";
export { VERSION } from "./version.js";
export { verify, WebhookVerificationError, Webhooks, type Webhook, type WebhookAttempt, type WebhookEvent, type WebhookEventType, type WebhookHeaders } from "./webhooks.js";
