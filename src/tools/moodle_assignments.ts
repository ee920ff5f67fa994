/**
 * moodle_assignments — the function tool `get_moodle_assignments`: the assignments of the Moodle
 * courses the person chatting is enrolled in, with their due dates and where that person's own
 * submission stands. The Moodle user is always the requester; the model may only narrow the
 * answer to one course, and only to one of the requester's own courses.
 *
 * Submission statuses take one Moodle call per assignment, so only the most relevant ones are
 * checked (upcoming due dates first), a few at a time.
 */
import { AppError } from '../errors/app-error.js';
import { mapWithConcurrency } from '../integrations/map-with-concurrency.js';
import {
  MoodleException,
  moodleTime,
  requireMoodleClient,
  type MoodleAssignment,
  type MoodleClient,
  type MoodleCourse,
  type MoodleSubmissionStatus,
} from '../integrations/moodle-client.js';
import { defineTool, type Source } from '../pipeline/plugin-api.js';

const FUNCTION_NAME = 'get_moodle_assignments';
/** At most this many assignments are listed with their submission status; the rest are counted. */
export const ASSIGNMENTS_CHECKED_MAXIMUM = 20;
/** Submission statuses asked of Moodle at the same time. */
export const SUBMISSION_STATUS_CONCURRENCY = 4;
/** What a status reads as when Moodle refused to tell it for one assignment. */
const UNKNOWN_STATUS: MoodleSubmissionStatus = { status: 'unknown', gradingStatus: undefined };

function courseIdArgument(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const id = typeof value === 'string' && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) {
    throw new AppError('invalid_body', `${FUNCTION_NAME}: "course_id" must be the id of one of the user's Moodle courses.`, {
      param: 'arguments',
    });
  }
  return id;
}

/** All of the user's courses, or the one asked for, which must be among them. */
function chosenCourses(courses: readonly MoodleCourse[], courseId: number | undefined): readonly MoodleCourse[] {
  if (courseId === undefined) return courses;
  const course = courses.find((candidate) => candidate.id === courseId);
  if (course === undefined) throw new AppError('forbidden', `Course ${courseId} is not one of your Moodle courses.`);
  return [course];
}

/** Upcoming due dates first (soonest first), then past ones (latest first), then those without one. */
function byRelevance(nowSeconds: number): (left: MoodleAssignment, right: MoodleAssignment) => number {
  const rank = (assignment: MoodleAssignment): number => (assignment.duedate === 0 ? 2 : assignment.duedate >= nowSeconds ? 0 : 1);
  return (left, right) => {
    const byRank = rank(left) - rank(right);
    if (byRank !== 0) return byRank;
    if (rank(left) === 0) return left.duedate - right.duedate;
    if (rank(left) === 1) return right.duedate - left.duedate;
    return left.id - right.id;
  };
}

/** One assignment Moodle will not report on (a permission, a deleted module) does not sink the whole answer. */
async function statusOrUnknown(moodle: MoodleClient, assignment: MoodleAssignment, userId: number): Promise<MoodleSubmissionStatus> {
  try {
    return await moodle.submissionStatus(assignment.id, userId);
  } catch (error) {
    if (error instanceof MoodleException) return UNKNOWN_STATUS;
    throw error;
  }
}

function assignmentEntry(assignment: MoodleAssignment, status: MoodleSubmissionStatus): Record<string, unknown> {
  return {
    id: assignment.id,
    name: assignment.name,
    course_id: assignment.courseId,
    course: assignment.courseName,
    due: moodleTime(assignment.duedate),
    ...(assignment.cutoffdate > 0 && { cut_off: moodleTime(assignment.cutoffdate) }),
    submission_status: status.status,
    ...(status.gradingStatus !== undefined && { grading_status: status.gradingStatus }),
  };
}

function assignmentSource(assignment: MoodleAssignment, siteUrl: string | undefined): Source {
  const url = siteUrl !== undefined && assignment.cmid !== undefined ? `${siteUrl}/mod/assign/view.php?id=${assignment.cmid}` : undefined;
  return { title: `Moodle: ${assignment.name}`, ...(url !== undefined && { url }) };
}

export default defineTool({
  name: 'moodle_assignments',
  displayName: 'Moodle assignments',
  description:
    "Lets the model list the assignments of the Moodle courses the person chatting is enrolled in, with due dates and that person's submission status.",
  category: 'lms',
  version: '1.0',
  configSchema: { type: 'object', additionalProperties: false, properties: {} } as const,
  enabled: (context) => context.integrations.moodle !== undefined,
  function: {
    describe: () => ({
      name: FUNCTION_NAME,
      description:
        'List the assignments of the Moodle courses that the user you are talking with is enrolled in, with due dates and whether that user has submitted each one. It always answers for that user; give course_id (from get_moodle_courses) to see one course only.',
    }),
    parameters: {
      type: 'object',
      additionalProperties: false,
      properties: {
        course_id: { type: 'integer', minimum: 1, description: "Only this course's assignments; all of the user's courses when left out." },
      },
    } as const,
    async call(argumentsFromModel, context) {
      const courseId = courseIdArgument(argumentsFromModel.course_id);
      const moodle = requireMoodleClient(context.integrations.moodle, context.signal);
      const userId = await moodle.resolveUserId(context.requester);
      const courses = chosenCourses(await moodle.userCourses(userId), courseId);
      const assignments = (await moodle.assignments(courses.map((course) => course.id))).sort(byRelevance(Date.now() / 1000));
      const checked = assignments.slice(0, ASSIGNMENTS_CHECKED_MAXIMUM);
      const statuses = await mapWithConcurrency(checked, SUBMISSION_STATUS_CONCURRENCY, (assignment) =>
        statusOrUnknown(moodle, assignment, userId),
      );
      return {
        content: JSON.stringify({
          moodle_user_id: userId,
          course_count: courses.length,
          assignment_count: assignments.length,
          assignments: checked.map((assignment, index) => assignmentEntry(assignment, statuses[index] ?? UNKNOWN_STATUS)),
          ...(assignments.length > checked.length && { omitted_assignments: assignments.length - checked.length }),
        }),
        sources: checked.map((assignment) => assignmentSource(assignment, moodle.siteUrl)),
        metadata: { course_count: courses.length, assignment_count: assignments.length, statuses_checked: checked.length },
      };
    },
  },
});
