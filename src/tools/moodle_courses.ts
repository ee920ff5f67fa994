/**
 * moodle_courses — the function tool `get_moodle_courses` (LAMB's `moodle` tool, seed 003, hence
 * the alias): the Moodle courses the person chatting is enrolled in, through the organization's
 * Moodle Web Services. It always answers for the requester; whatever user the model names in its
 * arguments (LAMB's spec had a `user_id`) is ignored, so nobody can read another learner's courses.
 */
import { moodleTime, requireMoodleClient, type MoodleCourse } from '../integrations/moodle-client.js';
import { defineTool, type Source } from '../pipeline/plugin-api.js';

/** Enough for any learner; a longer list is cut, and the answer says how many were left out. */
const LISTED_COURSES_MAXIMUM = 100;

function courseEntry(course: MoodleCourse): Record<string, unknown> {
  return {
    id: course.id,
    shortname: course.shortname,
    fullname: course.fullname,
    starts: moodleTime(course.startdate),
    ends: moodleTime(course.enddate),
    ...(!course.visible && { hidden_from_students: true }),
  };
}

function courseSource(course: MoodleCourse, siteUrl: string | undefined): Source {
  return { title: `Moodle: ${course.fullname}`, ...(siteUrl !== undefined && { url: `${siteUrl}/course/view.php?id=${course.id}` }) };
}

export default defineTool({
  name: 'moodle_courses',
  aliases: ['moodle'],
  displayName: 'Moodle courses',
  description: "Lets the model list the Moodle courses the person chatting is enrolled in, through the organization's Moodle Web Services.",
  category: 'lms',
  version: '1.0',
  configSchema: { type: 'object', additionalProperties: false, properties: {} } as const,
  enabled: (context) => context.integrations.moodle !== undefined,
  function: {
    describe: () => ({
      name: 'get_moodle_courses',
      description:
        'List the Moodle courses that the user you are talking with is enrolled in (id, short and full name, start and end dates). Takes no arguments: it always answers for that user.',
    }),
    parameters: { type: 'object', properties: {} } as const,
    async call(_argumentsFromModel, context) {
      const moodle = requireMoodleClient(context.integrations.moodle, context.signal);
      const userId = await moodle.resolveUserId(context.requester);
      const courses = await moodle.userCourses(userId);
      const listed = courses.slice(0, LISTED_COURSES_MAXIMUM);
      return {
        content: JSON.stringify({
          moodle_user_id: userId,
          course_count: courses.length,
          courses: listed.map(courseEntry),
          ...(courses.length > listed.length && { omitted_courses: courses.length - listed.length }),
        }),
        sources: listed.map((course) => courseSource(course, moodle.siteUrl)),
        metadata: { course_count: courses.length },
      };
    },
  },
});
