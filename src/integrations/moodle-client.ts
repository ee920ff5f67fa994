/**
 * The client of Moodle Web Services (REST protocol) that the Moodle tools and moodle_augment share:
 *
 *   POST {apiUrl}      (the site's …/webservice/rest/server.php)
 *   wstoken=…&wsfunction=…&moodlewsrestformat=json&<the function's parameters, form-encoded>
 *
 * Parameters use Moodle's form encoding (`values[0]=…`, `courseids[0]=…`); the token travels in the
 * body, never in a URL a proxy could log. Moodle reports a failure with HTTP 200 and
 * `{exception, errorcode, message}`: that becomes a MoodleException naming the errorcode only —
 * Moodle's message (and debuginfo) can quote parameters, so it is never kept.
 *
 * The Moodle user is always the requester (who is authenticated in Merino), never anyone a model
 * names: a trusted Moodle user id from an LTI launch, else the account with the requester's email.
 */
import { AppError } from '../errors/app-error.js';
import type { OutboundFetch, Requester } from '../pipeline/plugin-api.js';
import { requestIntegrationJson } from './integration-request.js';

const SERVICE = 'Moodle';
const REST_SERVER_PATH = '/webservice/rest/server.php';
/** An errorcode is an identifier; anything else Moodle put there is not repeated. */
const ERROR_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

export interface MoodleConnection {
  /** The full REST endpoint URL, e.g. https://moodle.example.edu/webservice/rest/server.php. */
  apiUrl: string;
  token: string;
  timeoutMilliseconds: number;
  /** INTEGRATION_RESPONSE_MAX_BYTES: the largest answer read from one call. */
  responseBytesMaximum: number;
  /** The guarded fetch when the organization set the URL; the server's own MOODLE_API_URL may go anywhere. */
  fetch: OutboundFetch;
}

export type MoodleValue = string | number | boolean | readonly MoodleValue[] | { readonly [name: string]: MoodleValue };
export type MoodleParameters = Readonly<Record<string, MoodleValue>>;

function describeException(wsfunction: string, errorcode: string): string {
  if (errorcode === 'invalidtoken') return "Moodle refused the organization's web-service token (invalidtoken).";
  if (errorcode === 'accessexception') return `Moodle refused ${wsfunction}: the web-service token may not use it (accessexception).`;
  return `Moodle refused ${wsfunction} (${errorcode}).`;
}

/** Moodle answered with its `{exception, errorcode}` JSON: the request reached Moodle, which refused it. */
export class MoodleException extends AppError {
  constructor(
    readonly wsfunction: string,
    readonly errorcode: string,
  ) {
    super('upstream_error', describeException(wsfunction, errorcode), { details: { moodle_errorcode: errorcode } });
  }
}

export interface MoodleCourse {
  id: number;
  shortname: string;
  fullname: string;
  /** False when the course is hidden from students. */
  visible: boolean;
  /** Unix seconds; 0 when unset. */
  startdate: number;
  enddate: number;
}

export interface MoodleAssignment {
  id: number;
  /** The course module id, which Moodle's assignment page URL takes. */
  cmid: number | undefined;
  courseId: number;
  courseName: string;
  name: string;
  /** Unix seconds; 0 when there is none. */
  duedate: number;
  cutoffdate: number;
}

export interface MoodleSubmissionStatus {
  /** Moodle's submission status (`new`, `draft`, `submitted`, `reopened`); `new` when nothing was ever submitted. */
  status: string;
  /** Moodle's grading status (`graded`, `notgraded`, or a marking-workflow state), when it reports one. */
  gradingStatus: string | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(wsfunction: string, what: string): AppError {
  return new AppError('upstream_error', `Moodle sent a malformed answer to ${wsfunction}: ${what}.`);
}

/** Moodle's form encoding of nested parameters: `values[0]=a`, `options[0][name]=x`. */
export function encodeMoodleParameters(parameters: MoodleParameters): URLSearchParams {
  const form = new URLSearchParams();
  const add = (name: string, value: MoodleValue): void => {
    if (Array.isArray(value)) value.forEach((item: MoodleValue, index) => add(`${name}[${index}]`, item));
    else if (typeof value === 'object')
      for (const [key, item] of Object.entries(value as Record<string, MoodleValue>)) add(`${name}[${key}]`, item);
    else form.append(name, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  };
  for (const [name, value] of Object.entries(parameters)) add(name, value);
  return form;
}

/** The site's address (for links to courses and assignments), when the API URL is the standard REST endpoint. */
export function moodleSiteUrl(apiUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    return undefined;
  }
  if (!url.pathname.endsWith(REST_SERVER_PATH)) return undefined;
  return `${url.origin}${url.pathname.slice(0, -REST_SERVER_PATH.length)}`;
}

/** A Moodle user id the request carries from a trusted source (an LTI launch), when it is a valid one. */
export function trustedMoodleUserId(requester: Requester): number | undefined {
  const claimed = requester.moodleUserId?.trim();
  if (claimed === undefined || !/^\d{1,18}$/.test(claimed)) return undefined;
  const id = Number(claimed);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

function exceptionOf(wsfunction: string, answer: unknown): MoodleException | undefined {
  if (!isRecord(answer) || typeof answer.exception !== 'string') return undefined;
  const errorcode = typeof answer.errorcode === 'string' && ERROR_CODE.test(answer.errorcode) ? answer.errorcode : 'unknown';
  return new MoodleException(wsfunction, errorcode);
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function seconds(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The id of a user Moodle found by email, unless the account shows a different email. */
function accountIdMatching(user: unknown, wantedEmail: string): number | undefined {
  if (!isRecord(user)) return undefined;
  // A token that may not see emails gets users without the field; Moodle still matched them by email.
  const shown = user.email;
  if (shown !== undefined && (typeof shown !== 'string' || shown.trim().toLowerCase() !== wantedEmail)) return undefined;
  return positiveInteger(user.id);
}

function courseOf(value: unknown, index: number): MoodleCourse {
  const wsfunction = 'core_enrol_get_users_courses';
  if (!isRecord(value)) throw malformed(wsfunction, `course ${index} is not an object`);
  const id = positiveInteger(value.id);
  if (id === undefined) throw malformed(wsfunction, `course ${index} has no id`);
  const fullname = typeof value.fullname === 'string' ? value.fullname : typeof value.displayname === 'string' ? value.displayname : '';
  return {
    id,
    shortname: typeof value.shortname === 'string' ? value.shortname : '',
    fullname,
    visible: value.visible !== 0 && value.visible !== false,
    startdate: seconds(value.startdate),
    enddate: seconds(value.enddate),
  };
}

function assignmentsOfCourse(course: Record<string, unknown>, courseIndex: number): MoodleAssignment[] {
  const wsfunction = 'mod_assign_get_assignments';
  const courseId = positiveInteger(course.id);
  if (courseId === undefined) throw malformed(wsfunction, `courses[${courseIndex}] has no id`);
  if (!Array.isArray(course.assignments)) throw malformed(wsfunction, `courses[${courseIndex}].assignments is not a list`);
  return course.assignments.map((assignment: unknown, index) => {
    if (!isRecord(assignment)) throw malformed(wsfunction, `courses[${courseIndex}].assignments[${index}] is not an object`);
    const id = positiveInteger(assignment.id);
    if (id === undefined) throw malformed(wsfunction, `courses[${courseIndex}].assignments[${index}] has no id`);
    return {
      id,
      cmid: positiveInteger(assignment.cmid),
      courseId,
      courseName: typeof course.fullname === 'string' ? course.fullname : '',
      name: typeof assignment.name === 'string' ? assignment.name : `Assignment ${id}`,
      duedate: seconds(assignment.duedate),
      cutoffdate: seconds(assignment.cutoffdate),
    };
  });
}

/** `lastattempt.submission` (or the team's submission); Moodle leaves both out before a first attempt. */
function submissionStatusOf(answer: unknown): MoodleSubmissionStatus {
  if (!isRecord(answer)) throw malformed('mod_assign_get_submission_status', 'it is not a JSON object');
  const attempt = isRecord(answer.lastattempt) ? answer.lastattempt : {};
  const submission = isRecord(attempt.submission) ? attempt.submission : isRecord(attempt.teamsubmission) ? attempt.teamsubmission : {};
  return {
    status: typeof submission.status === 'string' && submission.status !== '' ? submission.status : 'new',
    gradingStatus: typeof attempt.gradingstatus === 'string' ? attempt.gradingstatus : undefined,
  };
}

export class MoodleClient {
  private readonly endpoint: URL;
  /** The site's address for links to its pages, when the API URL is the standard REST endpoint. */
  readonly siteUrl: string | undefined;

  constructor(
    private readonly connection: MoodleConnection,
    private readonly signal: AbortSignal,
  ) {
    try {
      this.endpoint = new URL(connection.apiUrl);
    } catch {
      throw new AppError('assistant_misconfigured', 'The Moodle API URL configured for this organization is not a valid URL.');
    }
    this.siteUrl = moodleSiteUrl(connection.apiUrl);
  }

  /** Calls one web-service function and returns its JSON answer; a Moodle exception rejects with a MoodleException. */
  async call(wsfunction: string, parameters: MoodleParameters = {}): Promise<unknown> {
    const form = encodeMoodleParameters(parameters);
    form.set('wstoken', this.connection.token);
    form.set('wsfunction', wsfunction);
    form.set('moodlewsrestformat', 'json');
    const answer = await requestIntegrationJson({
      service: SERVICE,
      url: this.endpoint,
      form,
      timeoutMilliseconds: this.connection.timeoutMilliseconds,
      responseBytesMaximum: this.connection.responseBytesMaximum,
      signal: this.signal,
      fetch: this.connection.fetch,
    });
    const exception = exceptionOf(wsfunction, answer);
    if (exception !== undefined) throw exception;
    return answer;
  }

  /** The requester's Moodle user id: the trusted one the request carries, else the account with their email. */
  async resolveUserId(requester: Requester): Promise<number> {
    return trustedMoodleUserId(requester) ?? (await this.userIdByEmail(requester.email));
  }

  private async userIdByEmail(email: string): Promise<number> {
    const wsfunction = 'core_user_get_users_by_field';
    if (email.trim() === '') throw new AppError('not_found', 'Your account has no email address to find your Moodle account by.');
    const answer = await this.call(wsfunction, { field: 'email', values: [email] });
    if (!Array.isArray(answer)) throw malformed(wsfunction, 'it is not a list');
    const wanted = email.trim().toLowerCase();
    const ids = new Set(answer.map((user: unknown) => accountIdMatching(user, wanted)).filter((id): id is number => id !== undefined));
    if (ids.size === 0) throw new AppError('not_found', 'No Moodle account has the email address of your account.');
    if (ids.size > 1) {
      throw new AppError(
        'forbidden',
        'Several Moodle accounts share the email address of your account, so it is not clear which one is yours; open the assistant from Moodle instead.',
      );
    }
    return [...ids][0] as number;
  }

  /** The courses the user is enrolled in. */
  async userCourses(userId: number): Promise<MoodleCourse[]> {
    const answer = await this.call('core_enrol_get_users_courses', { userid: userId });
    if (!Array.isArray(answer)) throw malformed('core_enrol_get_users_courses', 'it is not a list');
    return answer.map(courseOf);
  }

  /**
   * The assignments of the given courses (which must be the user's own). Never called with no
   * course: Moodle would then answer with the token owner's courses instead.
   */
  async assignments(courseIds: readonly number[]): Promise<MoodleAssignment[]> {
    const wsfunction = 'mod_assign_get_assignments';
    if (courseIds.length === 0) return [];
    // The token usually belongs to a service account that is not enrolled in the learner's courses.
    const answer = await this.call(wsfunction, { courseids: courseIds, includenotenrolledcourses: true });
    if (!isRecord(answer) || !Array.isArray(answer.courses)) throw malformed(wsfunction, '"courses" is not a list');
    const asked = new Set(courseIds);
    return answer.courses.flatMap((course: unknown, index) => {
      if (!isRecord(course)) throw malformed(wsfunction, `courses[${index}] is not an object`);
      // Only what was asked for: another course's assignments are not the user's business.
      return assignmentsOfCourse(course, index).filter((assignment) => asked.has(assignment.courseId));
    });
  }

  /** Where the user's submission to one assignment stands. */
  async submissionStatus(assignmentId: number, userId: number): Promise<MoodleSubmissionStatus> {
    return submissionStatusOf(await this.call('mod_assign_get_submission_status', { assignid: assignmentId, userid: userId }));
  }
}

/** The client for this tool call, or a clear error when the organization has no Moodle. */
export function requireMoodleClient(moodle: MoodleConnection | undefined, signal: AbortSignal): MoodleClient {
  if (moodle === undefined) throw new AppError('assistant_misconfigured', 'Moodle is not configured for this organization.');
  return new MoodleClient(moodle, signal);
}

/** A Moodle time (Unix seconds, 0 for none) as ISO 8601 in UTC, or null when unset. */
export function moodleTime(unixSeconds: number): string | null {
  return unixSeconds > 0 ? new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z') : null;
}
