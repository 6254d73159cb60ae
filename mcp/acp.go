package mcp

// ACPServer is one entry of ACP's session/new (and session/load)
// mcpServers: a stdio server (no type) or an "http" / "sse" one, with env
// and headers as name/value lists.
type ACPServer struct {
	Type    string         `json:"type,omitempty"`
	Name    string         `json:"name"`
	Command string         `json:"command,omitempty"`
	Args    []string       `json:"args,omitempty"`
	Env     []ACPNameValue `json:"env,omitempty"`
	URL     string         `json:"url,omitempty"`
	Headers []ACPNameValue `json:"headers,omitempty"`
}

// ACPNameValue is an ACP env variable or HTTP header.
type ACPNameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// FromACP converts an ACP client's servers into configs of the session
// source (which wins over the project and the user files). Bad entries come
// back with Err set and show as failed.
func FromACP(servers []ACPServer) []ServerConfig {
	out := make([]ServerConfig, 0, len(servers))
	for _, s := range servers {
		c := ServerConfig{Name: s.Name, Type: s.Type, Command: s.Command, Args: s.Args, URL: s.URL, Source: SourceSession}
		if len(s.Env) > 0 {
			c.Env = map[string]string{}
			for _, kv := range s.Env {
				c.Env[kv.Name] = kv.Value
			}
		}
		if len(s.Headers) > 0 {
			c.Headers = map[string]string{}
			for _, kv := range s.Headers {
				c.Headers[kv.Name] = kv.Value
			}
		}
		if c.Name == "" {
			c.Err = "an ACP mcpServers entry needs a name"
		} else {
			c.Err = c.check()
		}
		out = append(out, c)
	}
	return out
}

// SetSessionServers replaces the session source (an ACP session/new or
// session/load) and reloads the configuration. Servers whose definition
// did not change keep running; the others are stopped and start at the
// next turn.
func (m *Manager) SetSessionServers(cfgs []ServerConfig) {
	m.mu.Lock()
	old := m.servers
	m.opts.Session = cfgs
	m.servers, m.diags = nil, nil
	m.mu.Unlock()
	// load only reads files and appends; it takes no lock of its own.
	fresh := &Manager{opts: m.opts, log: m.log}
	fresh.load()
	keep := map[string]*server{}
	for _, s := range old {
		keep[s.cfg.Name+"\x00"+string(s.cfg.Source)+"\x00"+s.cfg.Hash()] = s
	}
	var stop []*server
	next := make([]*server, 0, len(fresh.servers))
	for _, s := range fresh.servers {
		k := s.cfg.Name + "\x00" + string(s.cfg.Source) + "\x00" + s.cfg.Hash()
		if o, ok := keep[k]; ok {
			next = append(next, o)
			delete(keep, k)
			continue
		}
		next = append(next, s)
	}
	for _, s := range keep {
		stop = append(stop, s)
	}
	m.mu.Lock()
	m.servers, m.diags = next, fresh.diags
	m.mu.Unlock()
	for _, s := range stop {
		s.mu.Lock()
		cs := s.session
		s.session = nil
		s.gen++
		s.mu.Unlock()
		if cs != nil {
			_ = cs.Close()
		}
	}
	m.changed()
}
