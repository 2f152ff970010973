package main

import (
	"net/http"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// TestSetupWithManager registers both controllers with a real manager, as
// main does, without starting it (there is no API server here): the
// builder accepts the kinds, the index and the sibling watch.
func TestSetupWithManager(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, AddToScheme(scheme))
	mgr, err := ctrl.NewManager(&rest.Config{Host: "http://127.0.0.1:1"}, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		// The index is made on the informer, which asks the mapper for the
		// kind's resource: a static mapper answers without a server.
		MapperProvider: func(*rest.Config, *http.Client) (meta.RESTMapper, error) {
			m := meta.NewDefaultRESTMapper([]schema.GroupVersion{GroupVersion})
			m.Add(GroupVersion.WithKind("DNSRecordSet"), meta.RESTScopeNamespace)
			m.Add(GroupVersion.WithKind("DNSZone"), meta.RESTScopeNamespace)
			return m, nil
		},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	require.NoError(t, err)
	pdns, err := newPowerDNS("http://127.0.0.1:1", "unused", testr.New(t))
	require.NoError(t, err)
	require.NoError(t, NewRecordSetReconciler(mgr.GetClient(), pdns, mgr.GetEventRecorderFor("dnsrecordset")).SetupWithManager(mgr))
	require.NoError(t, NewZoneReconciler(mgr.GetClient(), pdns).SetupWithManager(mgr))
}
