/** Why the config cannot be changed from the catalog now: tasks are running. Shared by the catalog's rows and their forms. */
import { runningTasks } from '../stores/slices.js';
import { useTasksStore } from '../stores/tasks-store.js';

/** The reason changes wait (a number of running tasks, so a task's progress re-renders nothing), or undefined. */
export function useConfigBusy(): string | undefined {
  const running = useTasksStore(runningTasks);
  return running
    ? `${running} task${running === 1 ? ' is' : 's are'} running: the config can change once ${running === 1 ? 'it has' : 'they have'} finished`
    : undefined;
}
