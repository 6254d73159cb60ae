package protocol

// Task is one item of the live task list.
type Task struct {
	ID         string `json:"id"`
	Content    string `json:"content"`
	Status     string `json:"status"` // pending | in_progress | completed
	ActiveForm string `json:"activeForm"`
}

// TasksListResult is the result of tasks/list.
type TasksListResult struct {
	Tasks []Task `json:"tasks"`
}
